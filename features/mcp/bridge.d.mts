// bridge.mjs is a program: importing it runs it (see its header). It exports nothing.
export {};
