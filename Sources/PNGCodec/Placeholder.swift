// Placeholder so the package builds while this module is written; delete when the module has real sources.
