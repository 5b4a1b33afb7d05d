// Keeps long text bounded by cutting its middle, so both the start and the end stay visible. Workflow-safe.

/** Cuts `text` to at most about `maxChars`, keeping head and tail, with a notice saying how much was cut. */
export function cutMiddle(text: string, maxChars: number): { text: string; cutChars: number } {
  if (text.length <= maxChars) return { text, cutChars: 0 };
  const keep = Math.max(0, maxChars);
  const headLen = Math.ceil(keep / 2);
  const tailLen = keep - headLen;
  const cutChars = text.length - headLen - tailLen;
  const tail = tailLen > 0 ? text.slice(text.length - tailLen) : '';
  return {
    text: `${text.slice(0, headLen)}\n\n[... ${cutChars} characters cut (${text.length} in all); head and tail kept ...]\n\n${tail}`,
    cutChars,
  };
}
