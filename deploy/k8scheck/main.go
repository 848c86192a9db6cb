// Command k8scheck prints the manifests a kustomization builds, with the same kustomize library
// its test validates them with, so that neither kubectl nor a kustomize binary is needed:
//
//	go run . ../../k8s/overlays/prod
//
// It is its own Go module so that the services' module does not carry the Kubernetes libraries.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: k8scheck <kustomization folder>")
		os.Exit(2)
	}
	out, err := build(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "k8scheck: %v\n", err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}
