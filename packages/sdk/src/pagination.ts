// Every list of the API answers `{ data, next_cursor }`; this walks the pages lazily, as an async iterator.

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * The items of a list, fetched a page at a time as the loop asks for them:
 * `for await (const run of client.runs.list({ jobId }))`. Breaking out of the loop fetches nothing more.
 */
export class Paginated<T> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>) {}

  /** The pages themselves, for a caller that shows one page at a time. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.fetchPage(cursor);
      yield page;
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Every item (all pages), or the first `max`. */
  async toArray(max = Number.POSITIVE_INFINITY): Promise<T[]> {
    const items: T[] = [];
    if (max <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= max) break;
    }
    return items;
  }

  /** The first item for which `match` holds, fetching no page beyond it. */
  async find(match: (item: T) => boolean): Promise<T | undefined> {
    for await (const item of this) if (match(item)) return item;
    return undefined;
  }
}
