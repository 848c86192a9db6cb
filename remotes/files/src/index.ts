// An asynchronous boundary: Module Federation negotiates the shared
// singletons before the standalone console starts.
void import('./standalone');
