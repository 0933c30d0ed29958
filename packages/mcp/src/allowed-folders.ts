// The folders the file tools may read and write, decided once for every file tool (as the official
// filesystem server does): the client's roots (MCP `roots/list`) when it declares them, else the
// folders given with --allow-dir, else the server's working folder. A path is compared after every
// link is resolved, so a link inside an allowed folder cannot lead out of it. A path outside is
// refused without being opened: an assistant must not be able to read /etc/passwd, ~/.ssh or a
// .env file by naming it.
import { isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { realPath } from '@enrich/bulk';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

export class AllowedFolders {
  /** The client's roots, as real paths; undefined until asked (and after the client changes them). */
  private roots: Promise<string[]> | undefined;

  constructor(
    private readonly server: Server,
    /** --allow-dir, or the working folder: used when the client declares no roots. */
    private readonly configured: readonly string[],
    private readonly log: (text: string) => void,
  ) {
    server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
      this.roots = undefined;
    });
  }

  /** The folders in force now, as real paths. */
  async folders(): Promise<string[]> {
    if (this.server.getClientCapabilities()?.roots) {
      this.roots ??= this.askRoots();
      const roots = await this.roots;
      if (roots.length > 0) return roots;
    }
    return this.configured.map((folder) => realPath(folder));
  }

  /**
   * The absolute path of `given` (a relative one is taken from the first allowed folder), or a
   * refusal naming the allowed folders when it is outside all of them.
   */
  async resolve(given: string, what: string): Promise<{ path: string } | { problem: string }> {
    const folders = await this.folders();
    const path = resolve(folders[0] ?? process.cwd(), given);
    const real = realPath(path);
    const inside = folders.some((folder) => {
      const rel = relative(folder, real);
      return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
    });
    if (inside) return { path };
    return {
      problem: `${what} ${given} is outside the folders this server may use (${folders.join(', ')}), so it was not opened. Nothing was read or spent. The folders are the client's roots, or the server's --allow-dir folders (its working folder by default).`,
    };
  }

  private async askRoots(): Promise<string[]> {
    try {
      const { roots } = await this.server.listRoots();
      return roots.flatMap((root) => {
        if (!root.uri.startsWith('file://')) return [];
        return [realPath(fileURLToPath(root.uri))];
      });
    } catch (error) {
      this.log(`the client's roots could not be read (${(error as Error).message}); using --allow-dir.`);
      this.roots = undefined;
      return [];
    }
  }
}
