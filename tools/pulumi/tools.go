//go:build tools

// Package tools pins the Pulumi engine this project is tested against.
// `go install` of these import paths builds the CLI from Pulumi's own Go modules,
// the way Pulumi's provider repositories install their test CLI.
package tools

import (
	_ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
)
