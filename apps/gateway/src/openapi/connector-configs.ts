// Connector create and update bodies per connector type, with the JSON Schema each type declares for its config
// (@conduit/connectors' type infos: the same schemas the catalog validates configs with).
import { z } from 'zod';
import { connectorCreateSchema, connectorUpdateSchema } from '@conduit/contracts';
import { connectorTypeInfos } from '@conduit/connectors/type-infos';

/** `postgres` -> `PostgresConnectorConfig`. */
const componentName = (type: string) => `${type.charAt(0).toUpperCase()}${type.slice(1)}ConnectorConfig`;

/** A zod stand-in that renders as the type's own JSON Schema (less its `$schema`, which a component must not carry). */
function configOf(type: string, schema: Record<string, unknown>): z.ZodType {
  const { $schema: _draft, ...jsonSchema } = schema;
  return z.record(z.string(), z.unknown()).meta({
    id: componentName(type),
    override: ({ jsonSchema: rendered }: { jsonSchema: Record<string, unknown> }) => {
      for (const key of Object.keys(rendered)) delete rendered[key];
      Object.assign(rendered, structuredClone(jsonSchema));
    },
  });
}

const CONFIGS = connectorTypeInfos().map((info) => ({
  type: info.type,
  description: info.description,
  config: configOf(info.type, info.config_schema),
}));

/** Create Connector's body: one variant per type, told apart by `type`. */
export const connectorCreateBody = z
  .discriminatedUnion(
    'type',
    CONFIGS.map(({ type, description, config }) =>
      connectorCreateSchema
        .extend({ type: z.literal(type), config })
        .meta({ id: `Create${componentName(type).replace('Config', '')}`, description }),
    ) as unknown as [z.ZodObject, ...z.ZodObject[]],
  )
  .meta({ id: 'ConnectorCreate' });

/** Update Connector's body: `type` may be left out, so the config is one of the types' configs. */
export const connectorUpdateBody = connectorUpdateSchema
  .extend({
    config: z.union(CONFIGS.map(({ config }) => config) as unknown as [z.ZodType, ...z.ZodType[]]).meta({
      description: "The config of the connector's type; a secret sent as `********` keeps its stored value.",
    }),
  })
  .meta({ id: 'ConnectorUpdate' });
