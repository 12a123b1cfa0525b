/** memd's version; a unit test keeps it equal to package.json's. */
export const MEMD_VERSION = '0.1.0';
