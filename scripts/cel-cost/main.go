// cel-cost prints what the API server computes of a CRD's x-kubernetes-validations rules, with the API
// server's own code (k8s.io/apiextensions-apiserver):
//
//	cel-cost CRD.yaml...            the estimated cost of every rule, as CRD creation computes it (the
//	                                rule's worst case times how many times its place can occur), and the
//	                                total the API server holds against its limit, as one JSON line per CRD.
//	cel-cost -update CRD.yaml OBJ   what validating the rules costs on a write of OBJ that changes nothing
//	                                the rules read (a status write): the runtime cost units the rules
//	                                spend, and the time and allocations of one validation, as one JSON line.
//
// Built by scripts/cel-cost-binary.sh; test/cel-cost.test.ts holds the estimates under a bound.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"sigs.k8s.io/yaml"
)

type ruleCost struct {
	Path string `json:"path"`
	Rule string `json:"rule"`
	Cost uint64 `json:"cost"`
}

type crdCost struct {
	CRD   string     `json:"crd"`
	Rules []ruleCost `json:"rules"`
	Total uint64     `json:"total"`
	// The API server's limits: one rule, and the whole schema.
	RuleLimit  uint64 `json:"ruleLimit"`
	TotalLimit uint64 `json:"totalLimit"`
}

func main() {
	var err error
	if len(os.Args) == 4 && os.Args[1] == "-update" {
		err = update(os.Args[2], os.Args[3])
	} else if len(os.Args) > 1 && os.Args[1][0] != '-' {
		for _, file := range os.Args[1:] {
			if err = estimate(file); err != nil {
				break
			}
		}
	} else {
		err = fmt.Errorf("usage: cel-cost CRD.yaml... | cel-cost -update CRD.yaml OBJECT.yaml")
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "cel-cost: %v\n", err)
		os.Exit(1)
	}
}

// readSchema reads the CRD's schema as the API server's internal type.
func readSchema(file string) (string, *apiextensions.JSONSchemaProps, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return "", nil, err
	}
	var v1 apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &v1); err != nil {
		return "", nil, fmt.Errorf("%s: %w", file, err)
	}
	var crd apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &crd, nil); err != nil {
		return "", nil, fmt.Errorf("%s: %w", file, err)
	}
	// The conversion moves a schema every version shares to spec.validation.
	if crd.Spec.Validation == nil || crd.Spec.Validation.OpenAPIV3Schema == nil {
		return "", nil, fmt.Errorf("%s: expected one schema for every version", file)
	}
	return crd.Name, crd.Spec.Validation.OpenAPIV3Schema, nil
}

// estimate walks the schema as CRD validation does (validation.ValidateCustomResourceDefinitionOpenAPISchema)
// and costs each node's rules as it does: the compiled rule's MaxCost times the node's MaxCardinality.
func estimate(file string) error {
	name, root, err := readSchema(file)
	if err != nil {
		return err
	}
	out := crdCost{CRD: name, Rules: []ruleCost{}, RuleLimit: validation.StaticEstimatedCostLimit, TotalLimit: validation.StaticEstimatedCRDCostLimit}
	envSet := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	var walk func(s *apiextensions.JSONSchemaProps, ctx *validation.CELSchemaContext, path *field.Path) error
	walk = func(s *apiextensions.JSONSchemaProps, ctx *validation.CELSchemaContext, path *field.Path) error {
		if len(s.XValidations) > 0 {
			info, err := ctx.TypeInfo()
			if err != nil || info == nil {
				return fmt.Errorf("%s: no type information: %v", path, err)
			}
			results, err := cel.Compile(info.Schema, info.DeclType, celconfig.PerCallLimit, envSet, cel.NewExpressionsEnvLoader())
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			for i, r := range results {
				if r.Error != nil {
					return fmt.Errorf("%s: rule %q: %s", path, s.XValidations[i].Rule, r.Error.Detail)
				}
				cost := times(r.MaxCost, r.MaxCardinality)
				if ctx.MaxCardinality != nil {
					cost = times(r.MaxCost, *ctx.MaxCardinality)
				}
				out.Rules = append(out.Rules, ruleCost{Path: path.String(), Rule: s.XValidations[i].Rule, Cost: cost})
				out.Total = plus(out.Total, cost)
			}
		}
		for key := range s.Properties {
			prop := s.Properties[key]
			if err := walk(&prop, ctx.ChildPropertyContext(&prop, key), path.Child(key)); err != nil {
				return err
			}
		}
		if s.Items != nil && s.Items.Schema != nil {
			if err := walk(s.Items.Schema, ctx.ChildItemsContext(s.Items.Schema), path.Child("items")); err != nil {
				return err
			}
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			extra := s.AdditionalProperties.Schema
			if err := walk(extra, ctx.ChildAdditionalPropertiesContext(extra), path.Child("additionalProperties")); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root, validation.RootCELContext(root), field.NewPath("openAPIV3Schema")); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}

// times and plus saturate as the API server's multiplyWithOverflowGuard and TotalCost do.
func times(cost, cardinality uint64) uint64 {
	if cost != 0 && ^uint64(0)/cost < cardinality {
		return ^uint64(0)
	}
	return cost * cardinality
}

func plus(a, b uint64) uint64 {
	if a+b < a {
		return ^uint64(0)
	}
	return a + b
}

// update validates OBJ against itself as statusStrategy.ValidateUpdate does (with ratcheting, on by default).
func update(crdFile, objFile string) error {
	_, root, err := readSchema(crdFile)
	if err != nil {
		return err
	}
	ss, err := structuralschema.NewStructural(root)
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(objFile)
	if err != nil {
		return err
	}
	var obj, old map[string]interface{}
	if err := yaml.Unmarshal(raw, &obj); err != nil {
		return err
	}
	if err := yaml.Unmarshal(raw, &old); err != nil {
		return err
	}
	validator := cel.NewValidator(ss, true, celconfig.PerCallLimit)
	validate := func() (field.ErrorList, int64) {
		correlated := common.NewCorrelatedObject(obj, old, &model.Structural{Structural: ss})
		return validator.Validate(context.Background(), nil, ss, obj, old, celconfig.RuntimeCELCostBudget, cel.WithRatcheting(correlated))
	}
	errs, remaining := validate()
	if len(errs) > 0 {
		return fmt.Errorf("the object is refused: %v", errs.ToAggregate())
	}
	bench := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			validate()
		}
	})
	return json.NewEncoder(os.Stdout).Encode(map[string]interface{}{
		"runtimeCost": celconfig.RuntimeCELCostBudget - remaining,
		"nsPerOp":     bench.NsPerOp(),
		"allocsPerOp": bench.AllocsPerOp(),
		"bytesPerOp":  bench.AllocedBytesPerOp(),
	})
}
