/**
 * The docs' links within the repository (`npm run docs -- --check`, scripts/docs.ts): each names a
 * file or folder that exists and, for a `#section`, a heading that file has, with the anchors GitHub
 * gives headings. Links to other sites are not followed; text in code is not a link.
 */
import { dirname, join, normalize } from "node:path";

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, "")
    .replaceAll(" ", "-");
}

/** A Markdown text without its fenced code blocks and inline code, line for line. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split("\n").map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line.replace(/`[^`]*`/g, (code) => " ".repeat(code.length));
  });
}

/** Each heading's anchor in `text`, a repeated one with -1, -2… as GitHub numbers them. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const lines = text.split("\n");
  prose(text).forEach((line, i) => {
    if (!/^#{1,6} /.test(line)) return;
    // The heading's own text, inline code included (its backticks are dropped like other punctuation).
    const base = headingAnchor(lines[i]!.replace(/^#{1,6} /, ""));
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  });
  return anchors;
}

/**
 * Problems with the links of `docs` (path → Markdown text): a link to a path `exists` denies, or to a heading its
 * target does not have (read with `read`, given the path; null where it is not a Markdown file).
 */
export function linkProblems(
  docs: Readonly<Record<string, string>>,
  exists: (path: string) => boolean,
  read: (path: string) => string | null,
): string[] {
  const problems: string[] = [];
  for (const [path, text] of Object.entries(docs)) {
    prose(text).forEach((line, i) => {
      for (const [, target] of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        if (/^[a-z][a-z+.-]*:/i.test(target!)) continue;
        const [file, anchor] = target!.split("#", 2) as [string, string | undefined];
        const resolved = file === "" ? path : normalize(join(dirname(path), decodeURIComponent(file)));
        const where = `${path}:${i + 1}: the link to ${target}`;
        if (!exists(resolved)) {
          problems.push(`${where} names ${resolved}, which does not exist`);
          continue;
        }
        if (anchor === undefined || !resolved.endsWith(".md")) continue;
        const targetText = docs[resolved] ?? read(resolved);
        if (targetText !== null && !anchorsOf(targetText).has(anchor))
          problems.push(`${where} names a section ${resolved} does not have`);
      }
    });
  }
  return problems;
}
