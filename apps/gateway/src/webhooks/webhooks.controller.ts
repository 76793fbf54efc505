import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';

/** Webhooks and their deliveries, forwarded to the webhook dispatcher. */
@ApiTags('Webhooks')
@Controller('v2/webhooks')
export class WebhooksController {}
