// Parse every diagram of the book with mermaid's own parser, so the build
// fails on a diagram that would not draw. Reads a JSON array of diagram
// sources on stdin; writes a JSON array of the same length: null for a
// diagram that parses, the parser's message for one that does not.
import DOMPurify from "dompurify";

// Outside a browser DOMPurify has no window and so no methods, and mermaid
// sanitizes labels while it parses them. Parsing is all this checks (the
// browser draws and sanitizes), so labels pass through unchanged here.
if (typeof DOMPurify.addHook !== "function") {
  DOMPurify.addHook = () => {};
  DOMPurify.removeHook = () => {};
  DOMPurify.removeHooks = () => {};
  DOMPurify.sanitize = (text) => String(text);
}
const { default: mermaid } = await import("mermaid");

let input = "";
for await (const chunk of process.stdin) input += chunk;
const results = [];
for (const source of JSON.parse(input)) {
  try {
    await mermaid.parse(source);
    results.push(null);
  } catch (error) {
    results.push(String(error?.message ?? error));
  }
}
process.stdout.write(JSON.stringify(results));
