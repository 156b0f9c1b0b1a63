// What the service accepts as an e-mail address: one `@`, a dot in the domain, no spaces. A file of
// its own so that the command line can check its arguments without loading the domains.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const isEmail = (value: string) => EMAIL.test(value);
