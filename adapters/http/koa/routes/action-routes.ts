import Router from '@koa/router'
import { Core } from '../../../../application/core'
import { actionJson } from '../representations'
import { recordRoutes } from './record-routes'

export const actionRoutes = (router: Router, core: Core): void =>
  recordRoutes(router, core, 'action', '/v1/actions', actionJson, {
    create: core.createAction,
    list: core.listActions,
    get: core.getAction,
    replace: core.updateAction,
    remove: core.deleteAction,
  })
