/** Paging options every list helper takes; the iterator fetches the pages itself. */
export interface PageOptions {
  /** Items per page, 1-200 (the API's default is 50). */
  pageSize?: number;
}
