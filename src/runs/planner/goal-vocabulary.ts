// Two small word lists of the goal's language (English) that the matcher needs besides the
// registries' own words:
//   - COMMON_WORDS: everyday words that are never typo-corrected. A typo is a word that is not a
//     word; "shop" is one, so it must not be read as "ship" (which sent "Audit the SEO of my shop
//     page" to the ship gate as well). Only words of 4 letters or more are ever corrected, so only
//     those are listed; a word missing here is still corrected only when it lies within an edit or
//     two of a job's word, as before.
//   - VAGUE_WORDS: words that say a goal is about a page, a file or improving something without
//     saying what to do. They still count towards a match, but a goal whose only words matching
//     the best job are vague ("make my site better", "convert my file") is not clear enough to
//     run and bill: the answer is a free suggest.
import { stem } from './goal-text.ts';

const COMMON = `
able about above account actually added address after again ago agree ahead allow almost alone
along already although always amount another answer anyone anything anyway apart apple area areas
around article articles asked aside author available away back bank base based basic become been
before began begin behind being believe below beside best better between beyond bill blog blogs
blue board body book books both bottom brand brands break bring broken brought build building
built business busy button buttons call called came card cards care carry case cases cart catch
cause center change changed chapter chart cheap child choose city claim class clean clear click
client clients close closed club code coffee cold color colour come comes coming common company
contact content copy corner correct cost costs could count country course cover create created
current customer customers daily dark data date dates deal dear death deep demo design details
different dinner doing door down draft draw dream dress drive drop during each early easy edit
eight either else email emails empty end engine enough entire entry even event events ever every
exact example except extra face fact fail fair fall false family fast feel feels field fields
figure fill final find fine fire first five flat floor flow focus folder follow food form forms
forward four free fresh friend front full fully fund game garden gave general gets give given
glad goal goes going gone good great green group grow guess guide half hand handle hard have
having head health hear heart heavy held hello help here high hold home hope hour hours house
huge idea ideas image images important include inside instead item items itself join jump just
keep kept kind know large last late later lead learn least leave left less letter level life
light like line lines link links list little live local long look looking looks lost love lower
made mail main major make makes making many mark market match matter maybe mean means meet member
menu message middle might mind mine minute miss mobile mode model money month more morning most
move much must name names near nearly need never news next nice night none normal note notes
nothing notice number office often once online only open order other others over owner page
pages paid paper part party past path people person phone photo photos pick picture piece place
plan plans play please plus point points post posts power press pretty price prices print problem
product products program project proper public pull push quick quite rather read ready real
really reason recent record remove rest result right road room rough round rule rules safe said
sale sales same save says school score screen search second section seem seen sell send sense
sent service services session sets seven shall share shop shops short shot should show shown shows
side sign simple since single site sites size small some something soon sort sound source space
speak special spend staff stage stand start state stay step still stop store stores story street
strong such summer sure table take taken talk team tell term terms test than thank that their
them then there these they thing things think this those though three through time times title
today together told took topic total touch toward town track trade train tree true trust turn
type types under unit until upon used user users using value very view visit wait walk wall want
week well went were what when where which while white whole wide will window wish with within
without word words work world would write written wrong yard year years yellow young your
`;

/** Everyday English words (4+ letters) that are read as written, never as a typo of a job's word. */
export const COMMON_WORDS: ReadonlySet<string> = new Set(COMMON.split(/\s+/).filter((w) => w.length > 0));

const VAGUE = [
  'better', 'best', 'good', 'great', 'improve', 'improved', 'improvement', 'improvements', 'enhance', 'fix', 'fixes',
  'optimize', 'optimise', 'optimization', 'optimisation', 'boost', 'upgrade', 'polish', 'nicer', 'work',
  'file', 'files', 'document', 'documents', 'doc', 'docs', 'thing', 'things', 'stuff', 'content', 'data', 'text', 'tool', 'tools',
];

/**
 * Terms (stems, and the synonym table's concepts) that do not say which job is meant: a page or
 * site, "check", "convert", "calculate", and the VAGUE words. A best job that matches a goal on
 * these alone is a guess.
 */
export const VAGUE_TERMS: ReadonlySet<string> = new Set([...VAGUE.map(stem), '#page', '#check', '#convert', '#calculate']);
