import { Module } from '@nestjs/common';
import { ConnectorsController } from './connectors.controller.js';
import { ConnectorsService } from './connectors.service.js';
import { ConnectorSecrets } from './connector-secrets.js';
import type { SecretKeys } from '@conduit/secrets';
import { SECRETS_KEY } from '../common/tokens.js';

@Module({
  controllers: [ConnectorsController],
  providers: [
    ConnectorsService,
    {
      provide: ConnectorSecrets,
      useFactory: (keys: Buffer | SecretKeys) => new ConnectorSecrets(keys),
      inject: [SECRETS_KEY],
    },
  ],
})
export class ConnectorsModule {}
