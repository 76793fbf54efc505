// The API documents a saved DAG (StoredDag) with the limits the create and update's shape check applies.
import { DAG_SHAPE_LIMITS } from '@conduit/dag';
import { STORED_DAG_LIMITS } from '@conduit/contracts';

it("documents a saved DAG's limits as the shape check applies them", () => {
  expect(STORED_DAG_LIMITS).toEqual(DAG_SHAPE_LIMITS);
});
