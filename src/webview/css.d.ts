/** esbuild loads `.css` imports of the webview bundle as text (scripts/build.mjs). */
declare module '*.css' {
  const text: string;
  export default text;
}
