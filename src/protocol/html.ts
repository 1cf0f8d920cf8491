/** Text put into HTML, in an element or a double-quoted attribute: nothing in it can end either. */
export function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}
