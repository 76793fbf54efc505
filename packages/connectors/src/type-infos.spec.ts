import { connectorTypes } from './registry.js';
import { connectorTypeInfos } from './type-infos.js';

describe('connectorTypeInfos', () => {
  it("lists exactly the registry's types, with the same metadata", () => {
    expect(connectorTypeInfos()).toEqual(connectorTypes());
  });
});
