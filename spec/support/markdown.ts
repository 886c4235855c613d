/** Reading doc pages in specs that check a page against the code. */
import assert from 'node:assert/strict';

/** The body rows of the Markdown table whose header row starts with `header`, as trimmed cells. */
export function tableRows(markdown: string, header: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith(header));
  assert.ok(start >= 0, `no table starting with ${header}`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** The body rows of the first Markdown table in the `## <heading>` section, as trimmed cells. */
export function tableUnder(markdown: string, heading: string): string[][] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith(heading));
  assert.ok(section, `no section "## ${heading}"`);
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[-| ]+\|$/.test(line))
    .slice(1)
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
}
