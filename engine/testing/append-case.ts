import { Document, isMap, isSeq, parseDocument, type Node } from 'yaml';
import type { TestCase } from './test-file';

/**
 * A case added to an existing test file with the file kept byte for byte: the yaml package finds where
 * the `cases:` list ends and writes the new case (its Document API); only that text is inserted, indented
 * as the list's items are. Re-printing the whole document instead (Document.toString) would normalise the
 * spacing of comments and flow maps the author chose.
 */

/** Offset just past the line that holds `offset`. */
function lineEnd(text: string, offset: number): number {
  const newline = text.indexOf('\n', offset);
  return newline === -1 ? text.length : newline + 1;
}

/** Where the new item goes: after the last item's value and the comments indented under it (they belong to it), before blank lines and what follows. */
function insertionPoint(text: string, valueEnd: number, dashColumn: number): number {
  let at = lineEnd(text, Math.max(0, valueEnd - 1));
  for (let position = at; position < text.length;) {
    const end = lineEnd(text, position);
    const line = text.slice(position, end);
    if (line.trim() !== '' && !(line.trimStart().startsWith('#') && line.length - line.trimStart().length > dashColumn)) break;
    if (line.trim() !== '') at = end;
    position = end;
  }
  return at;
}

/**
 * A flow list (`cases: []`, `cases: [ {...} ]`): the case goes in before its closing bracket, written as
 * a flow map on one line, and nothing else of the file moves.
 */
function splicedIntoFlow(text: string, cases: Node, testCase: TestCase): string | undefined {
  if (!isSeq(cases) || !cases.flow || !cases.range) return undefined;
  const item = new Document(testCase, { flow: true }).toString({ lineWidth: 0 }).trim();
  // After the last item (a comma written after it stays where it was), or just inside the opening bracket.
  const last = (cases.items.at(-1) as Node | undefined)?.range?.[1];
  const at = last ?? text.indexOf('[', cases.range[0]) + 1;
  return `${text.slice(0, at)}${last === undefined ? '' : ', '}${item}${text.slice(at)}`;
}

/** The text with the case spliced into its list, or undefined when the list is not one the splice can extend (an empty block list). */
function spliced(text: string, cases: Node, testCase: TestCase): string | undefined {
  if (isSeq(cases) && cases.flow) return splicedIntoFlow(text, cases, testCase);
  if (!isSeq(cases) || cases.items.length === 0) return undefined;
  const last = cases.items.at(-1) as Node;
  const [start, valueEnd] = last.range ?? [];
  if (start === undefined || valueEnd === undefined) return undefined;
  const dash = text.lastIndexOf('-', start);
  const dashColumn = dash - (text.lastIndexOf('\n', dash) + 1);
  // Cases set apart by a blank line get one before the new case too.
  const lineBefore = text.slice(0, text.lastIndexOf('\n', dash) + 1).split('\n').at(-2) ?? '';
  const separated = cases.items.length > 1 && lineBefore.trim() === '';
  const item = new Document([testCase]).toString({ lineWidth: 0 }).split('\n').map((line) => (line === '' ? line : ' '.repeat(dashColumn) + line)).join('\n');
  const at = insertionPoint(text, valueEnd, dashColumn);
  const before = text.slice(0, at);
  return `${before}${before.endsWith('\n') ? '' : '\n'}${separated ? '\n' : ''}${item}${text.slice(at)}`;
}

/** `existing` with the case added to its `cases:` list; throws when it is no test file. */
export function appendedCase(existing: string, testCase: TestCase, testFile: string): string {
  const doc = parseDocument(existing);
  if (doc.errors.length > 0) throw new Error(`${testFile} is not valid YAML: ${doc.errors[0].message.split('\n')[0]}`);
  const cases = isMap(doc.contents) ? doc.contents.get('cases', true) : undefined;
  if (!isSeq(cases)) throw new Error(`${testFile} has no "cases:" list to add to`);
  // The document's own reading (toJS): an alias (*json) is its anchor's value, as a re-read of the spliced text gives it.
  const expected = JSON.stringify([...((doc.toJS() as { cases: unknown[] }).cases), JSON.parse(JSON.stringify(testCase)) as unknown]);
  const text = spliced(existing, cases, testCase);
  // The splice is checked: should the file's layout defeat it, the document is printed again instead.
  if (text !== undefined && JSON.stringify((parseDocument(text).toJS() as { cases?: unknown }).cases) === expected) return text;
  cases.add(doc.createNode(testCase));
  return doc.toString({ lineWidth: 0 });
}
