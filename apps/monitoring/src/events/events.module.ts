import { Module } from '@nestjs/common';
import { MonitoringEvents } from './monitoring-events.js';
import { MonitoringEventsWorker } from './monitoring-events.worker.js';

@Module({ providers: [MonitoringEvents, MonitoringEventsWorker], exports: [MonitoringEvents, MonitoringEventsWorker] })
export class EventsModule {}
