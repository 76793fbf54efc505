import { AppError, decodeCursor } from '@conduit/contracts';

/** The id a page of `list` starts after, or undefined for the first page; a cursor we did not issue for it is a 400. */
export function cursorAfter(cursor: string | undefined, list: string): string | undefined {
  if (cursor === undefined) return undefined;
  const position = decodeCursor(cursor, list);
  if (!position) throw new AppError('invalid_parameter', 'query parameter cursor: is not a valid cursor');
  return position.after;
}
