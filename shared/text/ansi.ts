/**
 * Terminal escape sequences taken out of transcript text (issue 28, item 6): Claude Code records
 * its commands' output as the terminal got it (`ESC[2m` dim, colours, OSC 8 links), and memd
 * prints transcript text to terminals and models, where the escapes would restyle the user's
 * terminal or reach the model as noise. Pure.
 */

/**
 * OSC (ESC ] … BEL or ESC \), then CSI (ESC [ or the 8-bit CSI, parameters, intermediates, a final
 * byte), then any other two-byte escape (ESC and one byte of @–_ or a charset pick), then a lone ESC.
 */
const ANSI_PATTERN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what it matches.
  /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]?|\u001b[()][0-9A-Za-z]?|\u001b[@-Z\\-_]?/g;

/** The text without terminal escape sequences. */
export function stripAnsi(text: string): string {
  return text.includes('\u001b') || text.includes('\u009b') ? text.replace(ANSI_PATTERN, '') : text;
}
