/**
 * @module uWebSockets.js hands each accepted connection to one of several threads: a thread's app gives its
 * descriptor, the listening app adds it, and from then on every connection it accepts goes, round-robin, to one
 * of the added apps, before any header is read (the listening app serves none itself). The binary
 * (uws_linux_x64_115) has getDescriptor, addChildAppDescriptor and removeChildAppDescriptor; the bundled typings
 * do not declare them, hence the one cast here.
 */

import type { TemplatedApp } from 'uWebSockets.js'

/** What a thread's app gives another thread (a number: the app's address, meaningful in this process only). */
export type AppDescriptor = number

interface WithChildren {
  getDescriptor(): AppDescriptor
  addChildAppDescriptor(descriptor: AppDescriptor): TemplatedApp
  removeChildAppDescriptor(descriptor: AppDescriptor): TemplatedApp
}

function withChildren(app: TemplatedApp): WithChildren {
  const methods = app as unknown as Partial<WithChildren>
  if (typeof methods.getDescriptor !== 'function' || typeof methods.addChildAppDescriptor !== 'function' || typeof methods.removeChildAppDescriptor !== 'function') {
    throw new Error('this uWebSockets.js has no child apps (getDescriptor, addChildAppDescriptor): connections cannot be spread over threads')
  }
  return methods as WithChildren
}

/**
 * This thread's app, to be handed connections by the listening app. Its thread must keep running while it is
 * added (an app whose thread has ended crashes the process when handed a connection): remove it first.
 */
export function descriptorOf(app: TemplatedApp): AppDescriptor {
  return withChildren(app).getDescriptor()
}

export function addChildApp(listening: TemplatedApp, descriptor: AppDescriptor): void {
  withChildren(listening).addChildAppDescriptor(descriptor)
}

export function removeChildApp(listening: TemplatedApp, descriptor: AppDescriptor): void {
  withChildren(listening).removeChildAppDescriptor(descriptor)
}
