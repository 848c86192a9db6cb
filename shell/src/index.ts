// An asynchronous boundary: Module Federation negotiates the shared
// singletons (react, chakra, the sdk, …) before any of them is used.
void import('./bootstrap');
