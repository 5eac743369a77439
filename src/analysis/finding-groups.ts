// One rule, one finding. An analyzer reports each place a rule fails (each image without alt, each
// blocking script); a report holds one finding per rule and category, with how many places there
// are and the first few of them. An agent fixing a page then gets one fix to apply everywhere and
// one acceptance check, its answer stays small whatever the page's size, and the finding keeps its
// id while the rule still fails, so the verify loop can tell a partly fixed rule from a new one.
import { MAX_LISTED_INSTANCES, placeOf, ruleFindingId, type Evidence, type Finding, type Severity } from './findings.ts';

/** The id of a rule's finding (findings.ts makes it; the name the fold's first callers know it by). */
export { ruleFindingId as groupFindingId } from './findings.ts';

/**
 * How a finding of several instances of a rule reads. `{count}` stands for how many there are.
 * A rule without it gets a generic wording: the rule's title and count, its instances' changes.
 */
export interface GroupWording {
  /** "{count} images have no alt attribute" */
  title: string;
  /** the change for every instance, said once: "Add an alt attribute to every image that has none: …" */
  change: string;
  /** one check for the rule: "No image without an alt attribute remains on the page." */
  acceptance: string;
}

const SEVERITY_ORDER: Record<Severity, number> = { high: 0, medium: 1, low: 2, info: 3 };
/** Up to this many instances, each one's change is said; beyond, the first stands for them. */
const SPELLED_OUT = 5;

/**
 * Folds findings into one per (rule, category), in the order the rules first fired. A finding that
 * is already a group (it has a count) counts as its instances, so folding twice changes nothing.
 */
export function groupFindings(findings: readonly Finding[], rules: ReadonlyMap<string, RuleWording> = new Map()): Finding[] {
  const groups = new Map<string, Finding[]>();
  for (const finding of findings) {
    const key = `${finding.rule}\u0000${finding.category}`;
    const members = groups.get(key);
    if (members) members.push(finding);
    else groups.set(key, [finding]);
  }
  return [...groups.values()].map((members) => fold(members, rules.get(members[0]?.rule ?? '')));
}

/** What a rule's definition says about its findings: its title, and how several read. */
export interface RuleWording {
  title: string;
  many?: GroupWording | undefined;
}

function fold(inPageOrder: readonly Finding[], rule: RuleWording | undefined): Finding {
  // The most severe instance leads (its evidence and fix are the finding's), the rest in page order;
  // a place reported twice (the same element reached two ways) is one instance.
  const places = new Set<string>();
  const members = [...inPageOrder]
    .sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity])
    .filter((f) => {
      const place = placeOf(f);
      if (place === undefined) return true;
      if (places.has(place)) return false;
      places.add(place);
      return true;
    });
  const first = members[0] as Finding;
  const wording = rule?.many;
  const findingId = ruleFindingId(first.rule, first.category);
  const count = members.reduce((n, f) => n + (f.count ?? 1), 0);
  const instances: Evidence[] = [];
  for (const member of members) {
    for (const evidence of member.instances ?? [member.evidence]) {
      if (instances.length >= MAX_LISTED_INSTANCES) break;
      if (Object.keys(evidence).length > 0) instances.push(evidence);
    }
  }
  if (members.length === 1) return { ...first, findingId, count, instances };

  const severity = first.severity;
  const fill = (text: string) => text.replaceAll('{count}', String(count));
  const where = ['selector', 'line', 'header', 'value', 'url'].filter((k) => instances[0] !== undefined && k in instances[0]).join(', ');
  const listed =
    instances.length === 0
      ? ''
      : instances.length < count
        ? ` The first ${instances.length} are listed in instances (${where}); the others are like them.`
        : ` Each is listed in instances (${where}).`;
  // A few instances are spelled out one by one (four Open Graph properties are four different
  // lines to add); many get the rule's change said once and one concrete example per kind of
  // change (an html edit and a header change read differently).
  const spelled = members.length <= SPELLED_OUT && members.every((f) => (f.count ?? 1) === 1);
  const examples = spelled ? members : firstPer(members, (f) => f.fix.patchType);
  const example = `${spelled ? 'Each:' : 'For example:'} ${[...new Set(examples.map((f) => f.fix.change))].join(' ')}`;
  const change = wording
    ? `${fill(wording.change)}${listed} ${example}`
    : `Fix all ${count} instances, not only the first.${listed} ${example}`;
  const acceptance = wording
    ? fill(wording.acceptance)
    : spelled
      ? `Each holds: ${[...new Set(members.map((f) => f.fix.acceptance))].join(' ')}`
      : `The rule ${first.rule} fires nowhere on the page (for the first instance: ${first.fix.acceptance})`;
  const detail = spelled
    ? `${count} instances on the page.${listed} ${[...new Set(members.map((f) => f.detail))].join(' ')}`
    : `${count} instances on the page.${listed} The first: ${first.detail}`;
  return {
    ...first,
    findingId,
    severity,
    // an instance's title may name its element; the rule's does not
    title: wording ? fill(wording.title) : `${rule?.title ?? first.title} (${count} instances)`,
    detail,
    evidence: first.evidence,
    fix: { ...first.fix, change, acceptance },
    count,
    instances,
  };
}

/** The first item of each key, in order. */
export function firstPer<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
