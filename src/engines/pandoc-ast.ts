// Walking pandoc's JSON document, shared by the checks that run between pandoc's two passes.
// Iterative, so a deeply nested document cannot overflow the stack.

/** A node of pandoc's JSON: `t` names its type, `c` holds its contents. */
export interface PandocNode {
  t?: unknown;
  c?: unknown;
  [key: string]: unknown;
}

/**
 * Yields every object of the document, parents before children. A node's children are read after
 * the consumer has seen it, so a node rewritten during the walk (an Image turned into a Span, a
 * raw block emptied) is walked as it has become.
 */
export function* pandocNodes(document: PandocNode): Generator<PandocNode> {
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (const item of value) if (item !== null && typeof item === 'object') stack.push(item);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const node = value as PandocNode;
    yield node;
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') stack.push(child);
  }
}
