// The extension's webview pages: their head, and escaping. Everything they show may come from a
// paid answer (a service that misbehaves could send markup), so every text goes through esc before
// it is placed in HTML, as element content or as an attribute value.

export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * A page's start, up to and including <body>: nothing loads but the page's own style (and its
 * script, with `script`), each allowed by the nonce.
 */
export function pageStart(
  title: string,
  options: { nonce: string; style: string; script?: boolean },
): string {
  const { nonce } = options;
  const script = options.script ? ` script-src 'nonce-${nonce}';` : '';
  const csp = `default-src 'none'; style-src 'nonce-${nonce}';${script}`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style nonce="${nonce}">${options.style}</style>
</head>
<body>`;
}
