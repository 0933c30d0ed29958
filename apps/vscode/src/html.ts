// Escaping for the extension's webview pages. Everything they show may come from a paid answer (a
// service that misbehaves could send markup), so every text goes through here before it is placed
// in HTML, as element content or as an attribute value.

export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
