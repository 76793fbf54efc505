import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { isolatedSqlProblem } from '@conduit/connectors';

/**
 * Starts the SQL-check child (pipeline-sql.ts) as the catalog starts: started by the first save instead, it took
 * ~0.3 s of that save's 1 s check budget, seconds on a busy machine, and SQL then went unchecked at save (the executor
 * still checks it when it runs). An idle child keeps no process alive (isolated-check.ts).
 */
@Injectable()
export class SqlCheckWarmup implements OnApplicationBootstrap {
  onApplicationBootstrap(): void {
    void isolatedSqlProblem('select 1', 'select', 60_000);
  }
}
