import type { SelectOption } from '../../../components';

let zones: string[] | undefined;

/** The IANA timezones this browser knows, with UTC first. */
export function timezoneNames(): string[] {
  if (!zones) {
    const supported =
      typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
    zones = ['UTC', ...supported.filter((zone) => zone !== 'UTC')];
  }
  return zones;
}

/** The options of a timezone select; a saved zone the browser does not list is kept. */
export function timezoneOptions(current: string): SelectOption[] {
  const names = timezoneNames();
  const all = current && !names.includes(current) ? [current, ...names] : names;
  return all.map((zone) => ({ value: zone, label: zone.replaceAll('_', ' ') }));
}
