// A small, strict XML parser for the web family, written here rather than taken from a package so
// that what it refuses is plain: no DTD at all (a `<!DOCTYPE` is a 422, which rules out billion
// laughs, external entities and parameter entities in one stroke), no entity but the five XML
// predefines and character references, no external anything, a bounded depth and node count. It
// checks well-formedness (matching tags, one root, quoted unique attributes) and is iterative,
// so a deep document cannot overflow the stack. Comments and processing instructions are
// skipped; CDATA is text.
import { ServiceError } from '../../core/errors.ts';

export interface XmlElement {
  name: string;
  attributes: [string, string][];
  children: XmlNode[];
}

export type XmlNode = XmlElement | string;

export interface XmlLimits {
  maxDepth: number;
  /** elements, attributes and text nodes together */
  maxNodes: number;
}

export const DEFAULT_XML_LIMITS: Readonly<XmlLimits> = Object.freeze({ maxDepth: 256, maxNodes: 2_000_000 });

const NAME_START = 'A-Za-z_:\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD';
const NAME_CHAR = `${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040`;
export const XML_NAME = new RegExp(`^[${NAME_START}][${NAME_CHAR}]*$`);
const NAME_AT = new RegExp(`[${NAME_START}][${NAME_CHAR}]*`, 'y');
/** One attribute of a start tag (sticky: matched where the previous one ended). */
const ATTRIBUTE_AT = new RegExp(`\\s+([${NAME_START}][${NAME_CHAR}]*)\\s*=\\s*("([^"<]*)"|'([^'<]*)')`, 'y');
// A name without a colon (an NCName): what a generated name must be, so it never makes a namespace prefix.
const NC_START = NAME_START.replace(':', '');
const NC_CHAR = NAME_CHAR.replace(':', '');
/** A name valid in XML with namespaces: no colon. */
export const XML_NCNAME = new RegExp(`^[${NC_START}][${NC_CHAR}]*$`, 'u');
/** One character (code point) that cannot be in an NCName. */
export const NOT_NCNAME_CHAR = new RegExp(`[^${NC_CHAR}]`, 'gu');
/** One character that can start an NCName. */
export const NCNAME_START = new RegExp(`^[${NC_START}]`, 'u');
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', apos: "'", quot: '"' };

function malformed(message: string, text: string, at: number): ServiceError {
  const line = text.slice(0, at).split('\n').length;
  return new ServiceError(422, 'corrupt_document', 'The file is not well-formed XML', { detail: `line ${line}: ${message}` });
}

/** Replaces the predefined entities and character references; any other entity is refused (no DTD declares one). */
export function decodeEntities(raw: string, text: string, at: number): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(/&([^;&\s]{0,32});?/g, (match, name: string) => {
    if (!match.endsWith(';')) throw malformed('a bare "&" (write &amp;)', text, at);
    if (name.startsWith('#')) {
      const code = name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      const valid = Number.isInteger(code) && (code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff));
      if (!valid || !/^#(x[0-9a-fA-F]+|[0-9]+)$/.test(name)) throw malformed(`an invalid character reference &${name};`, text, at);
      return String.fromCodePoint(code);
    }
    const value = PREDEFINED[name];
    if (value === undefined) {
      throw new ServiceError(422, 'unsafe_document', 'The XML uses entities, which are not accepted', {
        detail: `line ${text.slice(0, at).split('\n').length}: &${name}; is not one of XML's predefined entities (lt, gt, amp, apos, quot); DTDs and the entities they declare are refused`,
      });
    }
    return value;
  });
}

/** Parses `text` into its root element; 422 for a DTD, an unknown entity, bad nesting or past the limits. */
export function parseXml(input: string, limits: XmlLimits = DEFAULT_XML_LIMITS): XmlElement {
  const text = input.replace(/^\uFEFF/, '');
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  let nodes = 0;
  let at = 0;
  const count = (n = 1): void => {
    nodes += n;
    if (nodes > limits.maxNodes) throw new ServiceError(422, 'document_too_complex', 'The XML has too many nodes', { detail: `more than ${limits.maxNodes} elements, attributes and text nodes` });
  };
  const addText = (value: string): void => {
    if (value === '') return;
    const parent = stack.at(-1);
    if (!parent) {
      if (value.trim() !== '') throw malformed('text outside the root element', text, at);
      return;
    }
    const last = parent.children.at(-1);
    if (typeof last === 'string') parent.children[parent.children.length - 1] = last + value;
    else {
      count();
      parent.children.push(value);
    }
  };
  while (at < text.length) {
    const lt = text.indexOf('<', at);
    if (lt < 0) {
      addText(decodeEntities(text.slice(at), text, at));
      break;
    }
    if (lt > at) addText(decodeEntities(text.slice(at, lt), text, at));
    at = lt;
    if (text.startsWith('<!--', at)) {
      const end = text.indexOf('-->', at + 4);
      if (end < 0) throw malformed('an unclosed comment', text, at);
      at = end + 3;
    } else if (text.startsWith('<![CDATA[', at)) {
      const end = text.indexOf(']]>', at + 9);
      if (end < 0) throw malformed('an unclosed CDATA section', text, at);
      if (stack.length === 0) throw malformed('CDATA outside the root element', text, at);
      addText(text.slice(at + 9, end));
      at = end + 3;
    } else if (text.startsWith('<!', at)) {
      // <!DOCTYPE and anything like it: the one door to entities, external or recursive.
      throw new ServiceError(422, 'unsafe_document', 'The XML has a document type declaration (DTD), which is not accepted', {
        detail: `line ${text.slice(0, at).split('\n').length}: ${JSON.stringify(text.slice(at, at + 40))}; DTDs can declare entities (billion laughs) and external references, so no DTD is read`,
      });
    } else if (text.startsWith('<?', at)) {
      const end = text.indexOf('?>', at + 2);
      if (end < 0) throw malformed('an unclosed processing instruction', text, at);
      at = end + 2;
    } else if (text.startsWith('</', at)) {
      NAME_AT.lastIndex = at + 2;
      const name = NAME_AT.exec(text)?.[0];
      const open = stack.pop();
      if (!name || !open || open.name !== name) throw malformed(`</${name ?? ''}> does not close ${open ? `<${open.name}>` : 'any element'}`, text, at);
      const close = /\s*>/y;
      close.lastIndex = at + 2 + name.length;
      if (!close.test(text)) throw malformed(`a malformed end tag </${name}`, text, at);
      at = close.lastIndex;
    } else {
      NAME_AT.lastIndex = at + 1;
      const name = NAME_AT.exec(text)?.[0];
      if (!name) throw malformed('a "<" that starts no tag (write &lt;)', text, at);
      if (stack.length === 0 && root !== null) throw malformed(`a second root element <${name}>`, text, at);
      const element: XmlElement = { name, attributes: [], children: [] };
      count();
      let cursor = at + 1 + name.length;
      let selfClosing = false;
      // The names seen on this tag: a set, so that checking each of 100,000 attributes for a
      // duplicate costs one lookup, not a scan of those before it.
      const attributeNames = new Set<string>();
      for (;;) {
        ATTRIBUTE_AT.lastIndex = cursor;
        const match = ATTRIBUTE_AT.exec(text);
        if (match) {
          const attrName = match[1]!;
          if (attributeNames.has(attrName)) throw malformed(`attribute ${attrName} twice on <${name}>`, text, at);
          attributeNames.add(attrName);
          count();
          element.attributes.push([attrName, decodeEntities(match[3] ?? match[4] ?? '', text, at).replace(/[\t\n\r]/g, ' ')]);
          cursor = ATTRIBUTE_AT.lastIndex;
          continue;
        }
        const end = /\s*(\/?)>/y;
        end.lastIndex = cursor;
        const closing = end.exec(text);
        if (!closing) throw malformed(`a malformed start tag <${name}`, text, at);
        selfClosing = closing[1] === '/';
        cursor = end.lastIndex;
        break;
      }
      const parent = stack.at(-1);
      if (parent) parent.children.push(element);
      else root = element;
      if (!selfClosing) {
        stack.push(element);
        if (stack.length > limits.maxDepth) {
          throw new ServiceError(422, 'document_too_complex', 'The XML nests too deeply', { detail: `elements nest more than ${limits.maxDepth} deep` });
        }
      }
      at = cursor;
    }
  }
  if (stack.length > 0) throw malformed(`<${stack.at(-1)!.name}> is never closed (is the file cut short?)`, text, text.length);
  if (root === null) throw malformed('no root element', text, 0);
  return root;
}
