// Small helpers the sidebar's panels share.
export const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

export const number = (n: number) => n.toLocaleString('en-US');

export const plural = (n: number, one: string, many = `${one}s`) => `${number(n)} ${n === 1 ? one : many}`;

export function showMessage(text: string, ok = false): void {
  const box = $('message');
  box.textContent = text;
  box.className = ok ? 'ok' : 'error';
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
