import { ConnectorError } from '../connector-error.js';
import { classifyPgError, toConnectorError } from './pg-errors.js';

const coded = (code: string, message = 'boom') => Object.assign(new Error(message), { code });

describe('classifyPgError', () => {
  it.each([
    ['ENOTFOUND', 'config_error'],
    ['ECONNREFUSED', 'transient_error'],
    ['ETIMEDOUT', 'transient_error'],
    ['EAI_AGAIN', 'transient_error'],
    ['28P01', 'config_error'],
    ['28000', 'config_error'],
    ['3D000', 'config_error'],
    ['42501', 'config_error'],
    ['23505', 'config_error'],
    ['53300', 'transient_error'],
    ['57P03', 'transient_error'],
    ['40001', 'transient_error'],
    ['08006', 'transient_error'],
  ])('%s is a %s', (code, errorClass) => {
    expect(classifyPgError(coded(code)).error_class).toBe(errorClass);
  });

  it('names the SQLSTATE, treats TLS trouble as settings, and unknown failures as transient', () => {
    expect(classifyPgError(coded('3D000', 'database "x" does not exist')).message).toBe(
      'database "x" does not exist (SQLSTATE 3D000)',
    );
    expect(classifyPgError(new Error('The server does not support SSL connections')).error_class).toBe('config_error');
    expect(classifyPgError(new Error('self-signed certificate in certificate chain')).error_class).toBe('config_error');
    expect(classifyPgError(new Error('Connection terminated unexpectedly'))).toEqual({
      error_class: 'transient_error',
      message: 'Connection terminated unexpectedly',
    });
  });
});

describe('toConnectorError', () => {
  it('wraps with class and code, keeps ConnectorErrors and the abort reason as they are', () => {
    const wrapped = toConnectorError(coded('42P01', 'relation "t" does not exist'));
    expect(wrapped).toBeInstanceOf(ConnectorError);
    expect(wrapped).toMatchObject({ errorClass: 'config_error', code: '42P01' });
    const own = new ConnectorError('x', 'transient_error');
    expect(toConnectorError(own)).toBe(own);
    const controller = new AbortController();
    controller.abort();
    expect(toConnectorError(controller.signal.reason, controller.signal)).toBe(controller.signal.reason);
  });
});
