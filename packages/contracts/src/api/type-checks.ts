// Compile-time checks that the documented answers are the types the services answer: a field added to, removed from
// or retyped in an interface without its schema (or the other way round) fails the build.
import type { z } from 'zod';
import type { Project, Template } from '../schemas/projects.js';
import type { Pipeline, PipelineValidation } from '../schemas/pipelines.js';
import type { ConnectionTestResult, Connector, ConnectorTypeDescription } from '../schemas/connectors.js';
import type { Job, Run, RunDag } from '../schemas/jobs.js';
import type { Alert, Metrics, RunLogLine } from '../schemas/monitoring.js';
import type { Delivery, Webhook } from '../schemas/webhooks.js';
import type { ApiKey, CreatedApiKey, Tenant } from '../schemas/api-keys.js';
import type { ProblemDocument } from '../errors.js';
import type { Page } from '../pagination.js';
import type * as catalog from './catalog.js';
import type * as runs from './runs.js';
import type * as access from './access.js';
import type * as problem from './problem.js';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Check<T extends true> = T;
type Out<S extends z.ZodType> = z.output<S>;

/** The stored DAG is typed loosely in services (a draft may break the documented rules); the rest must match. */
type WithoutDag<T> = Omit<T, 'dag'>;

export type AnswerChecks = [
  Check<Same<Out<typeof catalog.projectSchema>, Project>>,
  Check<Same<Out<typeof catalog.templateSchema>, Template>>,
  Check<Same<Out<typeof catalog.pipelineValidationSchema>, PipelineValidation>>,
  Check<Same<WithoutDag<Out<typeof catalog.pipelineSchema>>, WithoutDag<Pipeline>>>,
  Check<Same<Out<typeof catalog.connectionTestResultSchema>, ConnectionTestResult>>,
  Check<Same<Out<typeof catalog.connectorSchema>, Connector>>,
  Check<Same<Out<typeof catalog.connectorTypeDescriptionSchema>, Omit<ConnectorTypeDescription, never>>>,
  Check<Same<Out<typeof runs.jobSchema>, Job>>,
  Check<Same<Out<typeof runs.runSchema>, Run>>,
  Check<Same<WithoutDag<Out<typeof runs.runDagSchema>>, WithoutDag<RunDag>>>,
  Check<Same<Out<typeof runs.metricsSchema>, Metrics>>,
  Check<Same<Out<typeof runs.alertSchema>, Alert>>,
  Check<Same<Out<typeof runs.runLogLineSchema>, RunLogLine>>,
  Check<Same<Out<typeof runs.runPageSchema>, Page<Run>>>,
  Check<
    Same<
      Out<typeof access.webhookSchema>,
      Omit<Webhook, 'events'> & { events: Out<typeof access.webhookSchema>['events'] }
    >
  >,
  Check<Same<Out<typeof access.deliverySchema>, Delivery>>,
  Check<
    Same<
      Out<typeof access.apiKeySchema>,
      Omit<ApiKey, 'scopes'> & { scopes: Out<typeof access.apiKeySchema>['scopes'] }
    >
  >,
  Check<Same<Omit<Out<typeof access.createdApiKeySchema>, 'scopes'>, Omit<CreatedApiKey, 'scopes'>>>,
  Check<Same<Out<typeof access.tenantSchema>, Tenant>>,
  Check<Same<Omit<Out<typeof problem.problemSchema>, 'code'>, Omit<ProblemDocument, 'code'>>>,
];
