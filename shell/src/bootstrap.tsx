import { mountConsole } from './console';

const element = document.getElementById('root');
if (!element) throw new Error('index.html has no #root element');
void mountConsole(element);
