/** Vite's `?raw` imports: a file's text, used by tests that keep documents in step with the code. */
declare module "*?raw" {
  const text: string;
  export default text;
}
