package main

import (
	"fmt"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// kustomize builds the kustomization in dir, as `kubectl kustomize dir` does.
func kustomize(dir string) (resmap.ResMap, error) {
	opts := krusty.MakeDefaultOptions()
	opts.Reorder = krusty.ReorderOptionLegacy // namespaces and config first, as kubectl kustomize orders them
	k := krusty.MakeKustomizer(opts)
	m, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	return m, nil
}

// build returns the YAML stream of the kustomization in dir.
func build(dir string) ([]byte, error) {
	m, err := kustomize(dir)
	if err != nil {
		return nil, err
	}
	return m.AsYaml()
}
