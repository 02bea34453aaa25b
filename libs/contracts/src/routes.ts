import { creditRoutes } from './credits';
import { directoryRoutes } from './directory';
import type { RouteSpec } from './route-spec';

/** Every REST route the gateway serves from the bus, in one table. */
export const ROUTES = [...directoryRoutes, ...creditRoutes] as const satisfies readonly RouteSpec[];
export type Routes = typeof ROUTES;
