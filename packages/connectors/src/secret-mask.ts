/** What a secret field is answered as, and what an update sends to keep the stored value. */
export const SECRET_MASK = '********';
