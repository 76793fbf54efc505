import { Module } from '@nestjs/common';
import { ConnectorsController } from './connectors.controller.js';
import { ConnectorsService } from './connectors.service.js';
import { ConnectorSecrets } from './connector-secrets.js';
import { SECRETS_KEY } from '../common/tokens.js';

@Module({
  controllers: [ConnectorsController],
  providers: [ConnectorsService, { provide: ConnectorSecrets, useFactory: (key: Buffer) => new ConnectorSecrets(key), inject: [SECRETS_KEY] }],
})
export class ConnectorsModule {}
