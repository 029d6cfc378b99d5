-- Argo CD health check for deploy.agents.dev AgentDeployment (Lua 5.1, as Argo CD runs it).
-- Order matters: paused, then not yet observed, then stalled, then work in progress (a retry included),
-- then a failed revision, then Ready.
local hs = {}

local function condition(conditionType)
  if obj.status == nil or obj.status.conditions == nil then
    return nil
  end
  for _, c in ipairs(obj.status.conditions) do
    if c.type == conditionType then
      return c
    end
  end
  return nil
end

local function isTrue(c)
  return c ~= nil and c.status == "True"
end

local function messageOf(c, fallback)
  if c ~= nil and c.message ~= nil and c.message ~= "" then
    return c.message
  end
  return fallback
end

local FAILED = { CREATE_FAILED = true, BUILD_FAILED = true, DEPLOY_FAILED = true }
local IN_PROGRESS = {
  CREATING = true, QUEUED = true, AWAITING_BUILD = true, BUILDING = true,
  AWAITING_DEPLOY = true, DEPLOYING = true
}

local annotations = obj.metadata.annotations or {}
local paused = condition("Paused")
if isTrue(paused) or annotations["deploy.agents.dev/paused"] == "true" then
  hs.status = "Suspended"
  hs.message = messageOf(paused, "Reconciliation is paused by the deploy.agents.dev/paused annotation")
  return hs
end

if obj.status == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the controller to report status"
  return hs
end

local generation = obj.metadata.generation
local observed = obj.status.observedGeneration
if generation ~= nil and (observed == nil or observed < generation) then
  hs.status = "Progressing"
  hs.message = "Waiting for the controller to observe generation " .. generation
  return hs
end

local stalled = condition("Stalled")
if isTrue(stalled) then
  hs.status = "Degraded"
  hs.message = messageOf(stalled, "Stalled")
  return hs
end

-- Still working (a failed revision whose spec.retry redeploy is scheduled included): Progressing.
local reconciling = condition("Reconciling")
if isTrue(reconciling) then
  hs.status = "Progressing"
  hs.message = messageOf(reconciling, "Reconciling")
  return hs
end

local revisionStatus = obj.status.revisionStatus
local ready = condition("Ready")
if revisionStatus ~= nil and FAILED[revisionStatus] then
  hs.status = "Degraded"
  hs.message = messageOf(ready, "Latest revision is " .. revisionStatus)
  return hs
end

if revisionStatus ~= nil and IN_PROGRESS[revisionStatus] then
  hs.status = "Progressing"
  hs.message = "Latest revision is " .. revisionStatus
  return hs
end

if isTrue(ready) then
  hs.status = "Healthy"
  hs.message = messageOf(ready, "Ready")
  return hs
end

hs.status = "Progressing"
hs.message = messageOf(ready, "Waiting for the Ready condition")
return hs
