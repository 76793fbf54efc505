import { AppError, decodeCursor } from '@conduit/contracts';

/** The id a page starts after, or undefined for the first page; a cursor we did not issue is a 400. */
export function cursorAfter(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const position = decodeCursor(cursor);
  if (!position) throw new AppError('invalid_parameter', 'query parameter cursor: is not a valid cursor');
  return position.after;
}
