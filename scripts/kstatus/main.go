// kstatus reads one Kubernetes object (JSON or YAML) from stdin and prints the verdict of
// sigs.k8s.io/cli-utils/pkg/kstatus, the library Flux, Helm's --wait, kpt and Config Sync compute readiness
// with, as one JSON line: {"status":"InProgress","message":"..."}.
// Built by scripts/kstatus-binary.sh; the tests call it on objects read back from the API server.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/yaml"
)

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "kstatus: %v\n", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer) error {
	raw, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("reading stdin: %w", err)
	}
	asJSON, err := yaml.YAMLToJSON(raw)
	if err != nil {
		return fmt.Errorf("stdin is not one JSON or YAML object: %w", err)
	}
	// Unstructured's own decoder keeps integers as int64, which kstatus' field accessors expect.
	object := &unstructured.Unstructured{}
	if err := object.UnmarshalJSON(asJSON); err != nil {
		return fmt.Errorf("stdin is not a Kubernetes object: %w", err)
	}
	result, err := status.Compute(object)
	if err != nil {
		return fmt.Errorf("computing status: %w", err)
	}
	return json.NewEncoder(out).Encode(map[string]string{
		"status":  string(result.Status),
		"message": result.Message,
	})
}
