/**
 * Text a peer wrote (a control plane's error detail, a 422's msg and loc, an agent server's answer) made
 * fit for a condition, an event, a log line or a terminal: one function, applied where the text enters.
 * Control, format and other invisible characters (terminal escape sequences lose their ESC, bidi
 * overrides, NUL, newlines) become spaces, runs of space collapse, and at most `max` characters are kept.
 */
export function cleanPeerText(text: string, max: number): string {
  const flat = text
    .replace(/[\p{C}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = Array.from(flat); // by code point: a cut never splits a surrogate pair
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : flat;
}

/** Characters a terminal or a reader would act on, or not see. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * One line shown as it is, every control or invisible character (a line break included) written as
 * `\uXXXX` instead: for a value printed whole, where dropping characters would misquote it (the plan).
 */
export function escapeInvisible(line: string): string {
  return line.replace(INVISIBLE, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}
