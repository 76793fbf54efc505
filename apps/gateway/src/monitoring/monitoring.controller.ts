import { Controller } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';

/** Metrics, alerts and run logs, forwarded to the monitoring service. */
@ApiTags('Monitoring')
@Controller('v2')
export class MonitoringController {}
