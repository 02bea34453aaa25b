import type { z } from 'zod';
import { AppError, type AssistantPromptReply, type AssistantPromptRequest } from '@wap/contracts';
import type { DirectoryClient } from '@wap/workspace-directory';
import { ModelError, type ModelClient } from './model-client';

/**
 * The workflow step `assistant_prompt`: one answer of the model to a prompt, for a member of
 * the workspace, without tools or history.
 */
export function createAssistantPrompt(deps: { model: ModelClient; directory: DirectoryClient }) {
  return async (
    request: z.infer<typeof AssistantPromptRequest>,
  ): Promise<z.infer<typeof AssistantPromptReply>> => {
    if (!(await deps.directory.confirmedRoleOf(request.workspaceId, request.userId))) {
      throw new AppError('NOT_FOUND', 'Workspace not found');
    }
    if (!deps.model.configured) {
      throw new AppError(
        'MODEL_NOT_CONFIGURED',
        'No language model is configured (set LLM_BASE_URL and LLM_MODEL on the chat service)',
      );
    }
    try {
      return { text: await deps.model.complete([{ role: 'user', content: request.prompt }]) };
    } catch (error) {
      if (error instanceof ModelError) throw new AppError('MODEL_FAILED', error.message);
      throw error;
    }
  };
}
