import GithubSlugger from 'github-slugger';

/**
 * Links and anchors of a Markdown page as GitHub renders them: headings get the anchors
 * github-slugger makes of their text (duplicates numbered -1, -2, …), and `<a id>`/`name` tags add
 * their own. Fenced code blocks and inline code hold neither.
 */

export interface Link {
  line: number;
  target: string;
}

/** The page's lines outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | null = null;
  markdown.split('\n').forEach((raw, index) => {
    const text = raw.replace(/^>\s?/, '');
    const open = /^\s*(`{3,}|~{3,})/.exec(text);
    if (fence) {
      if (open && text.trim().startsWith(fence)) fence = null;
      return;
    }
    if (open) {
      fence = open[1];
      return;
    }
    out.push({ line: index + 1, text });
  });
  return out;
}

const withoutInlineCode = (text: string) => text.replace(/(`+)(?:(?!\1).)+?\1/g, '');

/** The text GitHub slugs for a heading: links read as their text, inline code as its content. */
const headingText = (heading: string) => heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '');

export function anchors(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const found = new Set<string>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (heading) found.add(slugger.slug(headingText(heading[1])));
    for (const match of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(match[1]);
  }
  return found;
}

/** Every link and image target that is not an absolute URL. */
export function relativeLinks(markdown: string): Link[] {
  return proseLines(markdown).flatMap(({ line, text }) =>
    [...withoutInlineCode(text).matchAll(/!?\[(?:[^\]]|\][^(])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
      .map((match) => match[1])
      .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
      .map((target) => ({ line, target })),
  );
}
