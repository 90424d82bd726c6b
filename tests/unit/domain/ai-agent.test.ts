import { expect } from 'chai'
import { AiAgentCreationFields, newAiAgent, replaceAiAgent } from '../../../domain/ai-agent/ai-agent'
import { created, touched } from '../../../domain/shared/audit'
import { Timestamp } from '../../../domain/shared/time'

const t1 = '2026-03-01T09:00:00.000Z' as Timestamp
const t2 = '2026-03-01T10:00:00.000Z' as Timestamp

const fields: AiAgentCreationFields = {
  name: 'Ava',
  imageUrl: 'https://cdn.example.com/ava.png',
  status: 'active',
  role: 'Receptionist',
  roleDescription: 'Answers calls',
  timezone: 'Europe/Berlin',
  mission: { objective: 'Book demos' },
  voice: { modelId: 'voi.1' },
  transcriber: { provider: 'deepgram' },
  intelligenceProvider: { provider: 'openai' },
}

describe('ai agent', () => {
  const agent = newAiAgent('aia.1', 'org.1', fields, created('kim', t1))

  it('is made of its id, organisation, fields and audit', () => {
    expect(agent).to.deep.equal({ id: 'aia.1', orgId: 'org.1', ...fields, ...created('kim', t1) })
  })

  it('is replaced whole but for transcriber and intelligenceProvider, which stay', () => {
    const next = replaceAiAgent(
      agent,
      { name: 'Bo', imageUrl: 'https://cdn.example.com/bo.png', status: 'inactive', role: 'Sales', roleDescription: 'Sells', timezone: 'UTC', mission: null, voice: null },
      touched(agent, 'lee', t2),
    )
    expect(next).to.deep.equal({
      id: 'aia.1',
      orgId: 'org.1',
      name: 'Bo',
      imageUrl: 'https://cdn.example.com/bo.png',
      status: 'inactive',
      role: 'Sales',
      roleDescription: 'Sells',
      timezone: 'UTC',
      mission: null,
      voice: null,
      transcriber: { provider: 'deepgram' },
      intelligenceProvider: { provider: 'openai' },
      createdBy: 'kim',
      createdAt: t1,
      updatedBy: 'lee',
      updatedAt: t2,
      version: 2,
    })
  })
})
