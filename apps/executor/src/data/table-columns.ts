import type { RunNodeColumn } from '@conduit/contracts';

/** A node table's columns as a run reports them (at most RUN_NODE_COLUMNS_MAX) and how many the table really has. */
export interface NodeColumns {
  columns: RunNodeColumn[];
  total: number;
}
