/**
 * What a suite may override of a service's settings: any top-level setting, and any one switch of its background
 * work (the switches it leaves out keep the service's defaults).
 */
export type SettingsOverrides<S extends { background: object }> = Partial<Omit<S, 'background'>> & {
  background?: Partial<S['background']>;
};
