import { NotFound, S3ServiceException } from '@aws-sdk/client-s3';
import { ConnectorError } from '../connector-error.js';
import { classifyS3Error, endpointOf } from './s3-client.js';

const s3Error = (name: string, status: number, message = '') =>
  new S3ServiceException({
    name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status },
    message,
  });

describe('classifyS3Error', () => {
  it('calls bad credentials, missing buckets and denied access config errors with plain messages', () => {
    expect(classifyS3Error(s3Error('SignatureDoesNotMatch', 403, 'x'))).toEqual({
      error_class: 'config_error',
      message: 'the secret access key does not match the access key id',
    });
    expect(classifyS3Error(s3Error('InvalidAccessKeyId', 403))).toMatchObject({ error_class: 'config_error' });
    expect(classifyS3Error(new NotFound({ $metadata: { httpStatusCode: 404 }, message: '' }), 'b1')).toEqual({
      error_class: 'config_error',
      message: 'bucket "b1" does not exist',
    });
    expect(classifyS3Error(s3Error('Forbidden', 403), 'b1')).toEqual({
      error_class: 'config_error',
      message: 'access denied (bucket "b1")',
    });
  });

  it('calls throttling, server errors and network trouble transient, and an unknown host a config error', () => {
    expect(classifyS3Error(s3Error('SlowDown', 503, 'slow down')).error_class).toBe('transient_error');
    expect(classifyS3Error(s3Error('InternalError', 500, 'oops')).error_class).toBe('transient_error');
    expect(classifyS3Error(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })).error_class).toBe(
      'transient_error',
    );
    expect(classifyS3Error(Object.assign(new Error('getaddrinfo'), { code: 'ENOTFOUND' }))).toEqual({
      error_class: 'config_error',
      message: 'unknown host: getaddrinfo',
    });
    expect(classifyS3Error(new ConnectorError('mine', 'config_error'))).toEqual({
      error_class: 'config_error',
      message: 'mine',
    });
  });
});

describe('endpointOf', () => {
  it('uses the virtual-hosted bucket name on AWS and the endpoint host otherwise', () => {
    const base = { region: 'eu-west-1', bucket: 'data', force_path_style: false } as Parameters<typeof endpointOf>[0];
    expect(endpointOf({ ...base, endpoint: undefined })).toEqual({
      host: 'data.s3.eu-west-1.amazonaws.com',
      port: 443,
      url: 'https://s3.eu-west-1.amazonaws.com',
    });
    expect(endpointOf({ ...base, endpoint: 'http://minio:9000' })).toEqual({
      host: 'minio',
      port: 9000,
      url: 'http://minio:9000',
    });
  });
});
