/** What a secret field is answered as, and what an update sends to keep the stored value (declared in contracts). */
export { SECRET_MASK } from '@conduit/contracts';
