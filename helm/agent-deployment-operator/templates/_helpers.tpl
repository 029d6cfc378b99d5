{{- define "agent-deployment-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "agent-deployment-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "agent-deployment-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "agent-deployment-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "agent-deployment-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "agent-deployment-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "agent-deployment-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "agent-deployment-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "agent-deployment-operator.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The chart creates the credentials Secret when no existing one is named and a credential is given. */}}
{{- define "agent-deployment-operator.createCredentials" -}}
{{- if and (not .Values.credentials.existingSecret) (or .Values.credentials.apiKey .Values.credentials.bearerToken) }}true{{- end }}
{{- end }}

{{/* Name of the credentials Secret, or empty when the controller runs without default credentials. */}}
{{- define "agent-deployment-operator.credentialsSecret" -}}
{{- if .Values.credentials.existingSecret }}
{{- .Values.credentials.existingSecret }}
{{- else if include "agent-deployment-operator.createCredentials" . }}
{{- printf "%s-credentials" (include "agent-deployment-operator.fullname" .) }}
{{- end }}
{{- end }}

{{- define "agent-deployment-operator.leaderElectionId" -}}
{{- default (include "agent-deployment-operator.fullname" .) .Values.leaderElection.id }}
{{- end }}

{{/* The URL agent servers reach the webhook receiver at: webhook.baseUrl, else the in-cluster Service. */}}
{{- define "agent-deployment-operator.webhookBaseUrl" -}}
{{- if .Values.webhook.baseUrl -}}
{{- .Values.webhook.baseUrl -}}
{{- else -}}
{{- printf "http://%s-webhook.%s.svc:%v" (include "agent-deployment-operator.fullname" .) .Release.Namespace .Values.webhook.port -}}
{{- end -}}
{{- end }}
